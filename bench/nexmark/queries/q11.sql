-- q11 user sessions: bids per bidder per session, a session ending after 10 s without a bid.
SELECT bidder, COUNT(*) AS bid_count, window_start AS starttime, window_end AS endtime
FROM SESSION(TABLE bid PARTITION BY bidder, DESCRIPTOR(date_time), INTERVAL '10' SECOND)
GROUP BY bidder, window_start, window_end
