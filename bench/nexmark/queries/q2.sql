-- q2 selection: the bids on every 123rd auction.
SELECT auction, price FROM bid WHERE auction % 123 = 0
