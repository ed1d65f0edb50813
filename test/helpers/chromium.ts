// Where the browser tests find Debian's Chromium (`apt-get install chromium`); never a downloaded browser.
// GATEHOUSE_TEST_CHROMIUM points elsewhere (the runner's own test uses it to play a machine without Chromium).
export const CHROMIUM = process.env.GATEHOUSE_TEST_CHROMIUM || '/usr/bin/chromium';
