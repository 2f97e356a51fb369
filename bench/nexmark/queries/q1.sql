-- q1 currency conversion: bid prices from dollars to euros.
SELECT auction, bidder, CAST(0.908 * price AS NUMERIC(23, 3)) AS price, date_time, extra FROM bid
