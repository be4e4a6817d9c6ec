-- The workload's shared data through this app's schema: the same 10
-- authors, 200 articles and tags as examples/realworld/node/seed.sql.
INSERT INTO accounts (mail, handle, pw, about)
SELECT 'author' || i || '@example.com', 'author' || i, '!', 'Author number ' || i
FROM generate_series(1, 10) i;
INSERT INTO posts (slug, headline, summary, content, writer, created, updated)
SELECT 'article-' || i, 'Article ' || i, 'About ' || i, repeat('Body of article ' || i || '. ', 20),
       1 + i % 10, timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute',
       timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute'
FROM generate_series(1, 200) i;
INSERT INTO post_tags (post_id, tag)
SELECT post_id, 'bench' FROM posts
UNION ALL
SELECT post_id, 'tag-' || (post_id % 7) FROM posts;
