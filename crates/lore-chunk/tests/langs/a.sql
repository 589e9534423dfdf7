-- The carts.
CREATE TABLE carts (id INT PRIMARY KEY, total INT);
CREATE VIEW big AS SELECT * FROM carts WHERE total > 10;
CREATE FUNCTION add(a INT) RETURNS INT AS $$ SELECT a + 1 $$ LANGUAGE sql;
CREATE INDEX idx ON carts(total);
SELECT * FROM carts;
