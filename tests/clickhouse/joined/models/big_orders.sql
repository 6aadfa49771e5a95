-- maintained by ClickHouse itself
SELECT order_id, amount FROM source('j.orders') WHERE amount >= 100
