CREATE TABLE articles (
  id         bigserial PRIMARY KEY,
  slug       text NOT NULL UNIQUE,
  title      text NOT NULL,
  body       text NOT NULL,
  author_id  bigint NOT NULL REFERENCES users (id),
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX articles_created_idx ON articles (created_at DESC, id DESC);

CREATE TABLE comments (
  id         bigserial PRIMARY KEY,
  article_id bigint NOT NULL REFERENCES articles (id),
  author_id  bigint NOT NULL REFERENCES users (id),
  body       text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now()
);
