-- q10 log to file system: every bid with its date and minute, as a partitioned file sink would take them.
SELECT auction, bidder, price, date_time, extra,
  to_char(date_time, 'YYYY-MM-DD') AS dt, to_char(date_time, 'HH24:MI') AS hm
FROM bid
