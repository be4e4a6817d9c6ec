-- The Go implementation's own schema: the same API as
-- examples/realworld/node over other tables and column names (accounts,
-- posts; tags kept on the post, no tags table).
CREATE TABLE accounts (
  account_id bigserial PRIMARY KEY,
  mail       text NOT NULL UNIQUE,
  handle     text NOT NULL UNIQUE,
  pw         text NOT NULL,
  about      text,
  avatar_url text
);
