-- The workload's shared data through this app's schema: 10 authors,
-- 200 articles a minute apart from 2024-01-01, each tagged 'bench' and
-- one of tag-0 … tag-6. apps/realworld-go/seed.sql writes the same
-- data into the Go implementation's tables.
INSERT INTO users (email, username, password_hash, bio)
SELECT 'author' || i || '@example.com', 'author' || i, '!', 'Author number ' || i
FROM generate_series(1, 10) i;
INSERT INTO tags (name) SELECT 'tag-' || i FROM generate_series(0, 6) i;
INSERT INTO tags (name) VALUES ('bench');
INSERT INTO articles (slug, title, description, body, author_id, created_at, updated_at)
SELECT 'article-' || i, 'Article ' || i, 'About ' || i, repeat('Body of article ' || i || '. ', 20),
       1 + i % 10, timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute',
       timestamptz '2024-01-01 00:00:00+00' + i * interval '1 minute'
FROM generate_series(1, 200) i;
INSERT INTO article_tags (article_id, tag_id)
SELECT a.id, t.id FROM articles a JOIN tags t ON t.name IN ('bench', 'tag-' || (a.id % 7));
