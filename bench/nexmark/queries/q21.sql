-- q21 add channel id: bids from the four big channels or with a channel_id in the URL, with the id.
SELECT auction, bidder, price, channel,
  CASE
    WHEN lower(channel) = 'apple' THEN '0'
    WHEN lower(channel) = 'google' THEN '1'
    WHEN lower(channel) = 'facebook' THEN '2'
    WHEN lower(channel) = 'baidu' THEN '3'
    ELSE substring(url FROM '(?:&|^)channel_id=([^&]*)')
  END AS channel_id
FROM bid
WHERE substring(url FROM '(?:&|^)channel_id=([^&]*)') IS NOT NULL
  OR lower(channel) IN ('apple', 'google', 'facebook', 'baidu')
