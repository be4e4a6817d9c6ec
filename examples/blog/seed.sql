-- The bench user (password benchbench) and 200 articles with fixed dates.
INSERT INTO users (email, password) VALUES ('bench@example.com', 'benchbench');
INSERT INTO articles (slug, title, body, author_id, created_at, updated_at)
SELECT 'seeded-' || i, 'Seeded ' || i, repeat('Lorem ipsum dolor sit amet. ', 8), 1,
       timestamptz '2026-01-01 00:00:00+00' + i * interval '1 hour',
       timestamptz '2026-01-01 00:00:00+00' + i * interval '1 hour'
FROM generate_series(1, 200) AS i;
