/**
 * The offset lists (templates, campaigns): a project's summaries, filtered by the caller,
 * sorted by name (case-insensitive) or a time, paged; ties keep a stable order across pages.
 */

export interface OffsetPage<T> {
  readonly data: T[];
  readonly page: number;
  readonly pageSize: number;
  readonly total: number;
  readonly totalPages: number;
}

export interface Listed {
  readonly id: string;
  readonly name: string;
  readonly createdAt: string;
  readonly updatedAt: string;
}

export interface OffsetQuery {
  readonly page: number;
  readonly pageSize: number;
  readonly sort: 'name' | 'createdAt' | 'updatedAt';
  readonly dir: 'asc' | 'desc';
}

/** Sorts the matches and answers the ids of the requested page, with the list's totals. */
export function pageOf<T extends Listed>(
  matches: T[],
  q: OffsetQuery,
): { ids: string[]; shape: Omit<OffsetPage<unknown>, 'data'> } {
  matches.sort(comparator(q.sort, q.dir));
  const start = (q.page - 1) * q.pageSize;
  return {
    ids: matches.slice(start, start + q.pageSize).map((m) => m.id),
    shape: {
      page: q.page,
      pageSize: q.pageSize,
      total: matches.length,
      totalPages: Math.ceil(matches.length / q.pageSize),
    },
  };
}

function comparator(sort: OffsetQuery['sort'], dir: 'asc' | 'desc') {
  const sign = dir === 'asc' ? 1 : -1;
  return (a: Listed, b: Listed) => {
    const primary =
      sort === 'name'
        ? a.name.localeCompare(b.name, 'en', { sensitivity: 'base' })
        : a[sort] < b[sort]
          ? -1
          : a[sort] > b[sort]
            ? 1
            : 0;
    // Ties (same name, same instant) keep a stable order across pages.
    return sign * (primary !== 0 ? primary : a.id < b.id ? -1 : a.id > b.id ? 1 : 0);
  };
}
