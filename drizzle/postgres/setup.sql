-- The PostgreSQL-only SQL, re-applied at every start (each function and trigger is replaced, never duplicated):
-- SQLite's three JSON functions the queries use on JSON kept in text columns, and PostgreSQL's version of
-- drizzle/0001_triggers.sql and 0029 (the catalog counters and the store versions) and of the point ledger's
-- append-only triggers (drizzle/0011).

-- A row per array element; `value` as SQLite gives it: a string's text, other values as JSON text.
CREATE OR REPLACE FUNCTION json_each(doc text) RETURNS TABLE (value text) LANGUAGE sql IMMUTABLE AS $$
  SELECT CASE WHEN jsonb_typeof(e) = 'string' THEN e #>> '{}' ELSE e::text END FROM jsonb_array_elements(doc::jsonb) e
$$;

-- Paths of the form '$.a.b' (all the code uses).
CREATE OR REPLACE FUNCTION json_extract(doc text, path text) RETURNS text LANGUAGE sql IMMUTABLE AS $$
  SELECT doc::jsonb #>> string_to_array(substr(path, 3), '.')
$$;

CREATE OR REPLACE FUNCTION json_array_length(doc text) RETURNS bigint LANGUAGE sql IMMUTABLE AS $$
  SELECT jsonb_array_length(doc::jsonb)::bigint
$$;

CREATE OR REPLACE FUNCTION svc_products_counters() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    UPDATE catalog_sequences SET product_count = product_count + 1, version = version + 1 WHERE store_id = NEW.store_id;
  ELSIF TG_OP = 'DELETE' THEN
    UPDATE catalog_sequences SET product_count = product_count - 1, version = version + 1 WHERE store_id = OLD.store_id;
  ELSE
    UPDATE catalog_sequences SET version = version + 1 WHERE store_id = NEW.store_id;
  END IF;
  RETURN NULL;
END $$;

CREATE OR REPLACE FUNCTION svc_catalog_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  UPDATE catalog_sequences SET version = version + 1 WHERE store_id = CASE WHEN TG_OP = 'DELETE' THEN OLD.store_id ELSE NEW.store_id END;
  RETURN NULL;
END $$;

-- TG_ARGV[0] names the column holding the store id (`id` on stores, `store_id` elsewhere).
CREATE OR REPLACE FUNCTION svc_settings_version() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  store text := CASE WHEN TG_OP = 'DELETE' THEN to_jsonb(OLD) ->> TG_ARGV[0] ELSE to_jsonb(NEW) ->> TG_ARGV[0] END;
BEGIN
  INSERT INTO store_versions (store_id, scope, version) VALUES (store, 'settings', 1)
    ON CONFLICT (store_id, scope) DO UPDATE SET version = store_versions.version + 1;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER products_counters AFTER INSERT OR UPDATE OR DELETE ON products
  FOR EACH ROW EXECUTE FUNCTION svc_products_counters();
CREATE OR REPLACE TRIGGER product_variants_version AFTER INSERT OR UPDATE OR DELETE ON product_variants
  FOR EACH ROW EXECUTE FUNCTION svc_catalog_version();
CREATE OR REPLACE TRIGGER stores_settings_version AFTER UPDATE ON stores
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('id');
CREATE OR REPLACE TRIGGER payment_settings_settings_version AFTER INSERT OR UPDATE OR DELETE ON payment_settings
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('store_id');
CREATE OR REPLACE TRIGGER payment_providers_settings_version AFTER INSERT OR UPDATE OR DELETE ON payment_providers
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('store_id');
CREATE OR REPLACE TRIGGER payment_credentials_settings_version AFTER INSERT OR UPDATE OR DELETE ON payment_credentials
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('store_id');

-- drizzle/0029_read_model_versions.sql: the point policy in the `settings` scope, coupons and their items in
-- `coupons`, updated and deleted checkout sheets in `sheets`, customers in `customers`, point lots in `points`.
-- TG_ARGV[0] names the scope.
CREATE OR REPLACE FUNCTION svc_store_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO store_versions (store_id, scope, version) VALUES (CASE WHEN TG_OP = 'DELETE' THEN OLD.store_id ELSE NEW.store_id END, TG_ARGV[0], 1)
    ON CONFLICT (store_id, scope) DO UPDATE SET version = store_versions.version + 1;
  RETURN NULL;
END $$;

CREATE OR REPLACE TRIGGER point_policies_settings_version AFTER INSERT OR UPDATE OR DELETE ON point_policies
  FOR EACH ROW EXECUTE FUNCTION svc_settings_version('store_id');
CREATE OR REPLACE TRIGGER coupons_version AFTER INSERT OR UPDATE OR DELETE ON coupons
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('coupons');
CREATE OR REPLACE TRIGGER coupon_items_version AFTER INSERT OR UPDATE OR DELETE ON coupon_items
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('coupons');
CREATE OR REPLACE TRIGGER checkout_sheets_version AFTER UPDATE OR DELETE ON checkout_sheets
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('sheets');
CREATE OR REPLACE TRIGGER customers_version AFTER INSERT OR UPDATE OR DELETE ON customers
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('customers');
CREATE OR REPLACE TRIGGER point_lots_version AFTER INSERT OR UPDATE OR DELETE ON point_lots
  FOR EACH ROW EXECUTE FUNCTION svc_store_version('points');

-- drizzle/0011_point_ledger_append_only.sql: the point ledger refuses to change or lose an entry.
CREATE OR REPLACE FUNCTION svc_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION '% is append-only', TG_TABLE_NAME;
END $$;

CREATE OR REPLACE TRIGGER point_entries_append_only BEFORE UPDATE OR DELETE ON point_entries
  FOR EACH ROW EXECUTE FUNCTION svc_append_only();
