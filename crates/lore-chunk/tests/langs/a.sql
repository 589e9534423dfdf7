-- The carts.
CREATE TABLE carts (id INT PRIMARY KEY, total INT);
CREATE VIEW big AS SELECT * FROM carts WHERE total > 10;
CREATE FUNCTION add(a INT) RETURNS INT AS $$ SELECT a + 1 $$ LANGUAGE sql;
CREATE INDEX idx ON carts(total);
SELECT * FROM carts;
\pset format unaligned
CREATE TABLE orders (id INT);
CREATE TYPE vec;
CREATE TABLE items (embedding vec(3));
CREATE OPERATOR <-> (LEFTARG = vec, RIGHTARG = vec, PROCEDURE = l2_distance);
CREATE AGGREGATE avg(vec) (SFUNC = vec_accum, STYPE = float8[]);
