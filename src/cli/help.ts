import { Help } from '@oclif/core';

/**
 * oclif's help, rendering only text with a template tag through ejs. oclif passes every summary and
 * description it prints through ejs (for `<%= config.bin %>` in examples), compiling a template per string:
 * the largest part of `svc --help`'s own time (issue 31). Text without a tag is what ejs would give back.
 */
export class SvcHelp extends Help {
  constructor(...args: ConstructorParameters<typeof Help>) {
    super(...args);
    const templated = this.render;
    this.render = (text: string) => (text.includes('<%') ? templated(text) : text);
  }
}
