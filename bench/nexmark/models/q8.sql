-- Nexmark q8: monitor new users. People who entered the system and created an auction in
-- the same 10-second tumbling window: a join of two window aggregates on the window.
SELECT P.id, P.name, P.starttime
FROM (
    SELECT id, name, window_start AS starttime, window_end AS endtime
    FROM TUMBLE(source('nexmark.person'), date_time, INTERVAL '10' SECOND)
    GROUP BY id, name, window_start, window_end
) P
JOIN (
    SELECT seller, window_start AS starttime, window_end AS endtime
    FROM TUMBLE(source('nexmark.auction'), date_time, INTERVAL '10' SECOND)
    GROUP BY seller, window_start, window_end
) A
ON P.id = A.seller AND P.starttime = A.starttime AND P.endtime = A.endtime
