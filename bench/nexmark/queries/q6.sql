-- q6 average selling price by seller: for each seller, the average winning price of the seller's
-- last 10 auctions (winning bid as in q9). Flink's text uses AVG() OVER (... ROWS 10 PRECEDING),
-- which Flink itself cannot run; this is Beam's meaning: one row per seller.
SELECT seller, AVG(price) AS avg_price
FROM (
  SELECT seller, price, ROW_NUMBER() OVER (PARTITION BY seller ORDER BY date_time DESC, id DESC) AS rn
  FROM (
    SELECT A.id, A.seller, B.price, B.date_time,
      ROW_NUMBER() OVER (PARTITION BY A.id ORDER BY B.price DESC, B.date_time ASC) AS rank_number
    FROM auction AS A, bid AS B
    WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
  ) AS W
  WHERE rank_number = 1
) AS R
WHERE rn <= 10
GROUP BY seller
