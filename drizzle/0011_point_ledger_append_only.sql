-- The point ledger is append-only (issue 12): the database refuses to change or remove an entry, so no
-- write path can rewrite a buyer's history. Balances live in `point_lots`.
CREATE TRIGGER `point_entries_no_update` BEFORE UPDATE ON `point_entries` BEGIN
  SELECT RAISE(ABORT, 'point_entries is append-only');
END;
--> statement-breakpoint
CREATE TRIGGER `point_entries_no_delete` BEFORE DELETE ON `point_entries` BEGIN
  SELECT RAISE(ABORT, 'point_entries is append-only');
END;
