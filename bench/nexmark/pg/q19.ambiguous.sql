-- Ties that make q19's result unspecified: bids of one auction with equal prices that
-- straddle the cut-off (some ranked 10th or better, some after). Ties within the top 10
-- only permute row numbers. pgcheck.py compares both up to the ties (see TIED_RANKS).
SELECT auction, price, min(r) AS first_rank, count(*) AS bids
FROM (SELECT auction, price, rank() OVER (PARTITION BY auction ORDER BY price DESC) AS r FROM bid) AS t
GROUP BY auction, price
HAVING min(r) <= 10 AND min(r) + count(*) - 1 > 10
