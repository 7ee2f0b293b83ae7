/** A module for test/lazyLoading.test.ts: counts the tokens of a text, so the test can see that the tokenizer loads then. */
import { TokenCounter } from '../../src/context/index.js';

if (new TokenCounter().text('hello world') !== 2) throw new Error('"hello world" is 2 tokens in o200k_base');
