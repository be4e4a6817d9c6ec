-- The Node implementation's own schema: users, articles, tags and the
-- join table, with the column names this app chose.
CREATE TABLE users (
  id            serial PRIMARY KEY,
  email         text NOT NULL UNIQUE,
  username      text NOT NULL UNIQUE,
  password_hash text NOT NULL,
  bio           text,
  image         text
);
