-- q4 average price per category: the winning (highest) bid of each auction among the bids made
-- while it was open, averaged per category. An aggregate of an aggregate over a time-range join.
SELECT Q.category, AVG(Q.final) AS avg_final
FROM (
  SELECT MAX(B.price) AS final, A.category
  FROM auction AS A, bid AS B
  WHERE A.id = B.auction AND B.date_time BETWEEN A.date_time AND A.expires
  GROUP BY A.id, A.category
) AS Q
GROUP BY Q.category
