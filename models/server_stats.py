"""Schema v12 on PostgreSQL: memory text out of the planner's statistics (issue 31 #9).

``ANALYZE`` copies sample values of each column into ``pg_statistic``: a copy of the text a
forget cannot reach. Text and vector columns get statistics target 0, and the owner's
function drops what an earlier ``ANALYZE`` (or a DBA's, after raising a target) left there.
"""

from __future__ import annotations

# 9: memory text never reaches the planner's statistics (a sampled value is a copy of the
# text in pg_statistic, which a forget cannot reach); the owner's function clears what an
# ANALYZE before this version (or a DBA's, after raising the target) put there
STATS_COLUMNS = (
    ("fact", "content"),
    ("fact", "subject"),
    ("fact", "tags"),
    ("fact", "metadata"),
    ("fact", "source_ref"),
    ("fact", "fts"),
    ("audit_event", "before"),
    ("audit_event", "after"),
    ("audit_event", "reason"),
    ("compiled_layer", "markdown"),
    ("compiled_layer", "provenance"),
    ("entity", "name"),
    ("entity", "key"),
    ("entity", "aliases"),
    ("episode", "summary"),
    ("episode", "tags"),
    ("episode", "fts"),
    ("session", "log"),
    ("fact_vector", "embedding"),
)
_STATS_ARRAY = "ARRAY[" + ", ".join(f"'{t}.{c}'" for t, c in STATS_COLUMNS) + "]"

STATS_SQL = [
    # the text columns (table.column) whose statistics hold sampled values: names only, so
    # asking is no oracle for another member's text
    f"""CREATE OR REPLACE FUNCTION engram_sampled_text_columns() RETURNS text[]
        LANGUAGE sql STABLE SECURITY DEFINER SET search_path = public AS $$
        SELECT coalesce(array_agg(s.tablename || '.' || s.attname ORDER BY 1), '{{}}')
        FROM pg_stats s WHERE s.schemaname = 'public'
        AND (s.tablename || '.' || s.attname) = ANY({_STATS_ARRAY})
        AND (s.most_common_vals IS NOT NULL OR s.histogram_bounds IS NOT NULL
             OR s.most_common_elems IS NOT NULL)
    $$""",
    # a column's statistics go only with its type: re-stating the same type drops them. A
    # trigger naming the column, or a generated column computed from it (fts), blocks that:
    # they are dropped and made again as they were (the generated column with its indexes
    # and its statistics target)
    """CREATE OR REPLACE FUNCTION engram_clear_text_stats() RETURNS text[]
        LANGUAGE plpgsql SECURITY DEFINER SET search_path = public AS $$
        DECLARE col text; t text; c text; ty text; r record; redo text[]; d text;
            done text[] := '{}';
        BEGIN
        FOREACH col IN ARRAY engram_sampled_text_columns() LOOP
            t := split_part(col, '.', 1); c := split_part(col, '.', 2);
            SELECT format_type(a.atttypid, a.atttypmod) INTO ty FROM pg_attribute a
                WHERE a.attrelid = t::regclass AND a.attname = c;
            redo := '{}';
            FOR r IN SELECT x.oid, x.tgname FROM pg_trigger x
                JOIN pg_depend dp ON dp.objid = x.oid AND dp.classid = 'pg_trigger'::regclass
                JOIN pg_attribute a ON a.attrelid = dp.refobjid AND a.attnum = dp.refobjsubid
                WHERE x.tgrelid = t::regclass AND NOT x.tgisinternal AND a.attname = c LOOP
                redo := redo || pg_get_triggerdef(r.oid);
                EXECUTE format('DROP TRIGGER %I ON %I', r.tgname, t);
            END LOOP;
            FOR r IN SELECT g.attname, format_type(g.atttypid, g.atttypmod) AS gty,
                    g.attstattarget, pg_get_expr(ad.adbin, ad.adrelid) AS expr
                FROM pg_attribute g JOIN pg_attrdef ad
                    ON ad.adrelid = g.attrelid AND ad.adnum = g.attnum
                JOIN pg_depend dp ON dp.classid = 'pg_attrdef'::regclass AND dp.objid = ad.oid
                JOIN pg_attribute a ON a.attrelid = dp.refobjid AND a.attnum = dp.refobjsubid
                WHERE g.attrelid = t::regclass AND g.attgenerated = 's' AND a.attname = c
                AND g.attname <> c LOOP
                redo := redo || format('ALTER TABLE %I ADD COLUMN %I %s GENERATED ALWAYS AS (%s) STORED',
                    t, r.attname, r.gty, r.expr);
                redo := redo || ARRAY(SELECT pg_get_indexdef(i.indexrelid) FROM pg_index i
                    WHERE i.indrelid = t::regclass AND (SELECT attnum FROM pg_attribute
                        WHERE attrelid = t::regclass AND attname = r.attname) = ANY(i.indkey));
                redo := redo || format('ALTER TABLE %I ALTER COLUMN %I SET STATISTICS %s',
                    t, r.attname, greatest(r.attstattarget, 0));
                EXECUTE format('ALTER TABLE %I DROP COLUMN %I', t, r.attname);
            END LOOP;
            EXECUTE format('ALTER TABLE %I ALTER COLUMN %I TYPE %s', t, c, ty);
            FOREACH d IN ARRAY redo LOOP EXECUTE d; END LOOP;
            done := done || col;
        END LOOP;
        RETURN done;
        END $$""",
]
