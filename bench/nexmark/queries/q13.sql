-- q13 bounded side input join: each bid enriched from a 10,000-row side table looked up at
-- processing time. Statements before the query are its setup; the benchmark fills side_input
-- with (i, 'i') for i in 0..9999, as the Flink suite's side-input file holds.
CREATE TABLE side_input (key BIGINT PRIMARY KEY, value TEXT);

SELECT B.auction, B.bidder, B.price, B.date_time, S.value
FROM bid AS B
JOIN side_input FOR SYSTEM_TIME AS OF PROCTIME() AS S ON B.auction % 10000 = S.key
