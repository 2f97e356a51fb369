-- q3 local item suggestion: who sells category-10 items in Oregon, Idaho or California.
-- An unwindowed stream-stream join: both sides are kept for ever.
SELECT P.name, P.city, P.state, A.id
FROM auction AS A JOIN person AS P ON A.seller = P.id
WHERE A.category = 10 AND (P.state = 'OR' OR P.state = 'ID' OR P.state = 'CA')
