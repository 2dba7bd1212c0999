/* SQLite exercised on an in-memory database (scripts/bench clang builds it with pnacl-clang
   and natively): a table of 20,000 rows, an index, aggregates, a sort and a grouping. */
#include <stdio.h>
#include "sqlite3.h"
static int row(void *u, int n, char **v, char **c) { (void)u; for (int i = 0; i < n; i++) printf("%s%s", i ? "|" : "", v[i] ? v[i] : "NULL"); printf("\n"); return 0; }
int main(void) {
  sqlite3 *db; char *err = 0;
  if (sqlite3_open(":memory:", &db)) return 1;
  const char *sql =
    "create table t(a integer primary key, b text, c real);"
    "with recursive n(i) as (select 1 union all select i+1 from n where i < 20000) insert into t select i, 'row' || i, i * 0.5 from n;"
    "create index tb on t(b);"
    "select count(*), sum(a), avg(c), max(b) from t;"
    "select b, c from t where a % 5000 = 0 order by c desc;"
    "select substr(b, 1, 4), count(*) from t group by 1;";
  if (sqlite3_exec(db, sql, row, 0, &err) != SQLITE_OK) { printf("error: %s\n", err); return 1; }
  printf("sqlite %s\n", sqlite3_libversion());
  sqlite3_close(db);
  return 0;
}
