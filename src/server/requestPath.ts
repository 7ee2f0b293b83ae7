/** The path of a request's URL, without its query (which may carry `?access_token=`, so is never logged). */
export function pathOf(url: string): string {
  const query = url.indexOf('?');
  return query === -1 ? url : url.slice(0, query);
}
