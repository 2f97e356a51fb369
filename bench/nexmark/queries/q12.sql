-- q12 processing-time windows: bids per bidder per 10 s of processing time. p_time is the engine's
-- clock at the tick that ingested the bid (Engine.open({ clock }) injects it).
SELECT bidder, COUNT(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM TUMBLE(TABLE bid, DESCRIPTOR(p_time), INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
