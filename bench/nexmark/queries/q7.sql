-- q7 highest bid: the bids that carry the highest price of their 10 s tumbling window.
SELECT B.auction, B.price, B.bidder, B.date_time, B.extra
FROM bid AS B
JOIN (
  SELECT MAX(price) AS maxprice, window_end AS date_time
  FROM TUMBLE(TABLE bid, DESCRIPTOR(date_time), INTERVAL '10' SECOND)
  GROUP BY window_start, window_end
) AS B1 ON B.price = B1.maxprice
WHERE B.date_time BETWEEN B1.date_time - INTERVAL '10' SECOND AND B1.date_time
