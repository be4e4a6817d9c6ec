CREATE TABLE articles (
  id          serial PRIMARY KEY,
  slug        text NOT NULL UNIQUE,
  title       text NOT NULL,
  description text NOT NULL,
  body        text NOT NULL,
  author_id   integer NOT NULL REFERENCES users (id),
  created_at  timestamptz NOT NULL DEFAULT now(),
  updated_at  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX articles_created_at ON articles (created_at DESC, id DESC);
CREATE TABLE tags (
  id   serial PRIMARY KEY,
  name text NOT NULL UNIQUE
);
CREATE TABLE article_tags (
  article_id integer NOT NULL REFERENCES articles (id) ON DELETE CASCADE,
  tag_id     integer NOT NULL REFERENCES tags (id),
  PRIMARY KEY (article_id, tag_id)
);
