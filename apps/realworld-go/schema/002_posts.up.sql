CREATE TABLE posts (
  post_id  bigserial PRIMARY KEY,
  slug     text NOT NULL UNIQUE,
  headline text NOT NULL,
  summary  text NOT NULL,
  content  text NOT NULL,
  writer   bigint NOT NULL REFERENCES accounts (account_id),
  created  timestamptz NOT NULL DEFAULT now(),
  updated  timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX posts_created ON posts (created DESC, post_id DESC);
CREATE TABLE post_tags (
  post_id bigint NOT NULL REFERENCES posts (post_id) ON DELETE CASCADE,
  tag     text NOT NULL,
  PRIMARY KEY (post_id, tag)
);
CREATE INDEX post_tags_tag ON post_tags (tag);
