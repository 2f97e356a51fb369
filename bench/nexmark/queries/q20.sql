-- q20 expand bid with auction: bids on category-10 auctions, with the auction's columns.
SELECT B.auction, B.bidder, B.price, B.channel, B.url, B.date_time, B.extra,
  A.item_name, A.description, A.initial_bid, A.reserve, A.date_time AS auction_date_time,
  A.expires, A.seller, A.category
FROM bid AS B JOIN auction AS A ON B.auction = A.id
WHERE A.category = 10
