-- q0 passthrough: every bid, projected. Measures the source and the engine's per-event overhead.
SELECT auction, bidder, price, date_time, extra FROM bid
