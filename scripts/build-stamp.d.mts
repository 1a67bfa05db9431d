/** The file `npm run build` writes last, under `root`. */
export function buildStamp(root: string): string;
/** Whether the last build under `root` is newer than every source it is made from. */
export function buildIsCurrent(root: string): boolean;
