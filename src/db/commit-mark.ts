import fs from 'node:fs';

/**
 * A mark of the last commit to a SQLite database in WAL mode, by any connection of any process,
 * read without a transaction. SQLite keeps the WAL-index header at the start of the `-shm` file
 * and rewrites it on every commit, with a counter each transaction moves
 * (https://www.sqlite.org/walformat.html, "The WAL-Index Header"); a rolled-back transaction or a
 * read leaves it as it was. Two equal marks mean nothing was committed between the two reads.
 *
 * A read transaction would tell the same thing (`PRAGMA data_version`), but it takes and gives
 * back a file lock (two `fcntl` calls) and costs as much as the cached catalog answer it guards;
 * this is one `pread` of 48 bytes. A mark read while a commit rewrites the header may be torn: it
 * then differs from both, which only costs a read of the version.
 */

/** Bytes of a mark: the first copy of the WAL-index header (the second one follows it). */
export const COMMIT_MARK_BYTES = 48;

export interface CommitMarks {
  /** Writes the current mark into `into` (COMMIT_MARK_BYTES long). */
  read(into: Buffer): void;
  close(): void;
}

/** Marks of the database `file`, open in WAL mode by this process (which keeps its `-shm` alive). */
export function commitMarks(file: string): CommitMarks {
  const fd = fs.openSync(`${file}-shm`, 'r');
  return {
    read(into) {
      fs.readSync(fd, into, 0, COMMIT_MARK_BYTES, 0);
    },
    close() {
      fs.closeSync(fd);
    },
  };
}

/**
 * A count of the commits seen through `marks`, which moves whenever the mark read differs from
 * the one read before it: something read while the count was `n` is still as it was stored while
 * the count is `n`, provided it was read after the count was taken.
 *
 * `after(then)` calls `then` with the count read after the call, and so after the request that
 * asks was received: once the event loop's current phase is over (`setImmediate`), with one
 * `pread` for every call made meanwhile (the requests read from the sockets in one pass). A `pread`
 * per request cost a cached cart answer about a seventh of its CPU time.
 */
export interface CommitCount {
  /** `then` must not throw: the calls after it in its batch would not be made. */
  after(then: (count: number) => void): void;
}

export function commitCount(marks: CommitMarks): CommitCount {
  const seen = Buffer.alloc(COMMIT_MARK_BYTES);
  const now = Buffer.alloc(COMMIT_MARK_BYTES);
  let count = 0;
  let waiting: ((count: number) => void)[] = [];
  const flush = (): void => {
    const batch = waiting;
    waiting = [];
    marks.read(now);
    if (!now.equals(seen)) {
      now.copy(seen);
      count += 1;
    }
    for (const then of batch) then(count);
  };
  return {
    after(then) {
      waiting.push(then);
      if (waiting.length === 1) setImmediate(flush);
    },
  };
}
