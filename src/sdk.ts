/**
 * The `askgate` package's import entry: the SDK, re-exported from the `askgate-sdk` package the gateway bundles, so
 * `import { AskgateClient } from 'askgate'` and `from 'askgate-sdk'` give the same classes.
 */
export * from 'askgate-sdk';
