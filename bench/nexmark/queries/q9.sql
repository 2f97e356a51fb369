-- q9 winning bids: each auction with its highest bid made while it was open (earliest on ties).
SELECT id, item_name, description, initial_bid, reserve, date_time, expires, seller, category,
  auction, bidder, price, bid_date_time
FROM (
  SELECT A.id, A.item_name, A.description, A.initial_bid, A.reserve, A.date_time, A.expires,
    A.seller, A.category, B.auction, B.bidder, B.price, B.date_time AS bid_date_time,
    ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS rank_number
  FROM auction AS A, bid AS B
  WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
) AS W
WHERE rank_number = 1
