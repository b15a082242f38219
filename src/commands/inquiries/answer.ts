import { Args, Flags } from '@oclif/core';
import { ApiCommand } from '../../cli/api-command.js';

export default class InquiriesAnswer extends ApiCommand<typeof InquiriesAnswer> {
  static override summary = "Answer a buyer's question (a new answer replaces the last)";
  static override examples = ['<%= config.bin %> inquiries answer inq_… --text "다음 주에 입고됩니다."'];
  static override args = { inquiryId: Args.string({ required: true, description: 'Inquiry id (inq_…)' }) };
  static override flags = { text: Flags.string({ required: true, description: 'The answer (2,000 characters)' }) };

  async run() {
    const inquiry = await this.storeRequest('POST', `/v1/inquiries/${encodeURIComponent(this.args.inquiryId)}/answer`, { body: { text: this.flags.text } });
    this.output(inquiry, () => this.log(`Answered ${inquiry.inquiryId} (${inquiry.title}).`));
  }
}
