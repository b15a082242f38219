import type { Command } from '@oclif/core';
import { StorefrontCommand } from './storefront-command.js';

export interface DomainView {
  domainId: string;
  hostname: string;
  kind: 'PLATFORM' | 'CUSTOM';
  status: string;
  failureCode: string | null;
  dnsRecords: { type: string; name: string; value: string }[];
  target: string | null;
  primary: boolean;
}
export interface DomainList {
  enabled: boolean;
  limit: number;
  contents: DomainView[];
}

/** Base of `svc storefront domains …`: a domain named by its hostname (as typed, any case) or its id. */
export abstract class DomainCommand<T extends typeof Command> extends StorefrontCommand<T> {
  protected domains() {
    return this.storeRequest<DomainList>('GET', '/v1/storefront/site/domains');
  }

  protected async domainId(ref: string): Promise<string> {
    if (ref.startsWith('dom_')) return ref;
    const host = new URL(`http://${ref.replace(/\.$/, '')}`).hostname;
    const found = (await this.domains()).contents.find((d) => d.hostname === host);
    if (!found) throw new Error(`no domain ${ref} (svc storefront domains list)`);
    return found.domainId;
  }

  protected printDomains(list: DomainList) {
    this.table(
      list.contents.map((d) => ({ ...d, primary: d.primary ? '*' : '', failureCode: d.failureCode ?? '' })),
      ['primary', 'hostname', 'kind', 'status', 'failureCode', 'domainId'],
    );
    this.log(`custom domains ${list.contents.length - 1}/${list.limit}${list.enabled ? '' : ' (not open on this service)'}`);
  }

  /** The two records a pending domain needs, as the seller types them at their DNS provider. */
  protected printRecords(domain: DomainView) {
    if (domain.kind === 'PLATFORM' || domain.status === 'ACTIVE') return;
    this.log('Set these DNS records (the TXT proves the domain is yours; the CNAME points it here):');
    this.table(domain.dnsRecords, ['type', 'name', 'value']);
  }
}
