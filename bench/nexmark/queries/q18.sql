-- q18 last bid: each bidder's latest bid on each auction (a deduplication, kept up to date).
SELECT auction, bidder, price, channel, url, date_time, extra
FROM (
  SELECT *, ROW_NUMBER() OVER (PARTITION BY bidder, auction ORDER BY date_time DESC) AS rank_number
  FROM bid
) AS B
WHERE rank_number <= 1
