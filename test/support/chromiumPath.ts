/** Where the dashboard's browser tests and its benchmark find Chromium: Debian's `chromium` package puts it here. */
export const chromiumPath = '/usr/bin/chromium';
