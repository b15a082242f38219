import { isIP } from 'node:net';
import { domainToASCII, domainToUnicode } from 'node:url';
import { parse as parseDomain } from 'tldts';
import { fail } from '../../../server/errors.js';
import { DEV_SITES_DOMAIN } from '../../../server/request-guard.js';
import type { Services } from '../../../server/services.js';

/** Hostnames a store may connect: syntax, the service's own hosts, and names that could pass for another (UTS #39). */

type InvalidReason = 'SYNTAX' | 'IP_ADDRESS' | 'WILDCARD' | 'PUBLIC_SUFFIX' | 'SERVICE_DOMAIN' | 'MIXED_SCRIPT' | 'CONFUSABLE';
const invalid = (reason: InvalidReason, hostname: string, extra: Record<string, unknown> = {}) =>
  fail(400, 'STOREFRONT_DOMAIN_INVALID', { reason, hostname, ...extra });
const LABEL = /^(?!-)[a-z0-9-]{1,63}(?<!-)$/;

const under = (host: string, domain: string | null | undefined) => !!domain && (host === domain || host.endsWith(`.${domain}`));

/**
 * The service's own hosts: its origin, the sites and apps domains and the CNAME target. svc dev's sites
 * domain `localhost` is the exception: only `{slug}.localhost` is a site's (sitesDevHost), deeper names
 * under it are how custom domains are tried locally.
 */
function serviceHosts(services: Services): string[] {
  const { sitesDomain, domainTarget } = services.config.storefront;
  const sites = sitesDomain === DEV_SITES_DOMAIN ? null : sitesDomain;
  return [new URL(services.config.origin).hostname, sites, services.config.appsHost, domainTarget].filter((h): h is string => !!h).map((h) => h.toLowerCase());
}

/** `{label}.localhost` while svc dev serves sites there: a slug's address, never a custom domain. */
const sitesDevHost = (services: Services, host: string) =>
  services.config.storefront.sitesDomain === DEV_SITES_DOMAIN && host.split('.').length === 2 && host.endsWith(`.${DEV_SITES_DOMAIN}`);

/** A hostname a store may connect, in punycode (spec 02 §4.2), or 400 STOREFRONT_DOMAIN_INVALID with the reason. */
export function normalizeHostname(services: Services, input: string): string {
  const raw = input.trim().replace(/\.$/, '');
  if (raw.includes('*')) throw invalid('WILDCARD', input);
  const bare = raw.replace(/^\[(.*)\]$/, '$1');
  if (isIP(bare)) throw invalid('IP_ADDRESS', input);
  const host = domainToASCII(raw).toLowerCase();
  const labels = host.split('.');
  if (!host || host.length > 253 || labels.length < 2 || !labels.every((l) => LABEL.test(l))) throw invalid('SYNTAX', input);
  // All-numeric names read as IPv4 addresses by resolvers and browsers.
  if (/^[0-9.]+$/.test(host)) throw invalid('IP_ADDRESS', input);
  const parsed = parseDomain(host, { allowPrivateDomains: true });
  if (parsed.isIp) throw invalid('IP_ADDRESS', input);
  if (!parsed.domain || parsed.publicSuffix === host) throw invalid('PUBLIC_SUFFIX', input);
  if (serviceHosts(services).some((own) => under(host, own) || under(own, host)) || sitesDevHost(services, host)) throw invalid('SERVICE_DOMAIN', input);
  const spoof = spoofingLabel(domainToUnicode(host));
  if (spoof) throw invalid(spoof.reason, input, { asciiHostname: host, label: spoof.label });
  return host;
}

/**
 * Scripts told apart in a label (UTS #39). Characters of Common (digits, hyphen) and Inherited (combining
 * marks) go with any script; a letter of a script not listed counts as `Other`.
 */
const SCRIPTS = [
  'Latin',
  'Greek',
  'Cyrillic',
  'Armenian',
  'Hebrew',
  'Arabic',
  'Syriac',
  'Thaana',
  'Devanagari',
  'Bengali',
  'Gurmukhi',
  'Gujarati',
  'Oriya',
  'Tamil',
  'Telugu',
  'Kannada',
  'Malayalam',
  'Sinhala',
  'Thai',
  'Lao',
  'Tibetan',
  'Myanmar',
  'Georgian',
  'Hangul',
  'Ethiopic',
  'Cherokee',
  'Khmer',
  'Mongolian',
  'Hiragana',
  'Katakana',
  'Bopomofo',
  'Han',
].map((name) => ({ name, letter: new RegExp(`^\\p{Script=${name}}$`, 'u') }));
const ANY_SCRIPT = /^[\p{Script=Common}\p{Script=Inherited}]$/u;
/** UTS #39 "highly restrictive": besides one script alone, only these mixes are the way a language is written (Japanese, Chinese, Korean with Latin). */
const WRITING_SYSTEMS = [
  ['Latin', 'Han', 'Hiragana', 'Katakana'],
  ['Latin', 'Han', 'Bopomofo'],
  ['Latin', 'Han', 'Hangul'],
];
/**
 * Cyrillic and Greek letters that look like Latin ones (Cyrillic: Chromium's IDN display list): a label of
 * these alone reads as a Latin name (`аррӏе` for apple).
 */
const LATIN_LOOKALIKES: Record<string, RegExp> = {
  Cyrillic: /^[аысԁеԍһіюјӏорԛѕԝхуъьҽпгѵѡ0-9-]+$/u,
  Greek: /^[αικνορτυχ0-9-]+$/u,
};

const scriptsOf = (label: string) =>
  new Set([...label].filter((ch) => !ANY_SCRIPT.test(ch)).map((ch) => SCRIPTS.find((s) => s.letter.test(ch))?.name ?? 'Other'));

/**
 * The first label of a hostname (in Unicode) that could pass for another name: letters of scripts no
 * language mixes (Latin with Cyrillic: `раypal`), or a Cyrillic or Greek label of Latin look-alikes only
 * under a top-level domain of another script. Korean (Hangul, also with Han and Latin) passes.
 */
function spoofingLabel(hostname: string): { reason: 'MIXED_SCRIPT' | 'CONFUSABLE'; label: string } | null {
  const labels = hostname.split('.');
  const tldScripts = scriptsOf(labels[labels.length - 1]);
  for (const label of labels) {
    const scripts = [...scriptsOf(label)];
    if (scripts.length > 1 && !WRITING_SYSTEMS.some((system) => scripts.every((s) => system.includes(s)))) return { reason: 'MIXED_SCRIPT', label };
    const [only] = scripts;
    if (scripts.length === 1 && LATIN_LOOKALIKES[only]?.test(label) && !tldScripts.has(only)) return { reason: 'CONFUSABLE', label };
  }
  return null;
}
