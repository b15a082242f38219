import dns2 from 'dns2';

const { Packet } = dns2;

export interface Records {
  TXT?: string[];
  CNAME?: string;
  A?: string[];
  CAA?: { tag: 'issue' | 'issuewild' | 'iodef'; value: string }[];
}

/**
 * A real DNS server on loopback (UDP, random port) answering from `records`, which a test changes
 * as a seller would at their DNS provider: unknown names answer NXDOMAIN, known names without the type NODATA.
 */
export async function startDnsServer() {
  const records = new Map<string, Records>();
  const server = dns2.createServer({
    udp: true,
    handle: (request: any, send: (response: any) => void) => {
      const response = Packet.createResponseFromRequest(request);
      const [question] = request.questions;
      const name = String(question.name).toLowerCase().replace(/\.$/, '');
      const entry = records.get(name);
      if (!entry) {
        response.header.rcode = Packet.RCODE.NXDOMAIN;
        return send(response);
      }
      const base = { name: question.name, class: Packet.CLASS.IN, ttl: 1 };
      if (question.type === Packet.TYPE.TXT) for (const data of entry.TXT ?? []) response.answers.push({ ...base, type: Packet.TYPE.TXT, data });
      if (question.type === Packet.TYPE.CNAME && entry.CNAME) response.answers.push({ ...base, type: Packet.TYPE.CNAME, domain: entry.CNAME });
      if (question.type === Packet.TYPE.A) for (const address of entry.A ?? []) response.answers.push({ ...base, type: Packet.TYPE.A, address });
      if (question.type === Packet.TYPE.CAA)
        for (const caa of entry.CAA ?? []) response.answers.push({ ...base, type: Packet.TYPE.CAA, flags: 0, tag: caa.tag, value: caa.value });
      send(response);
    },
  });
  const addresses = await server.listen({ udp: { port: 0, address: '127.0.0.1' } });
  const port = (addresses as any).udp.port as number;
  return {
    records,
    /** `SVC_DNS_SERVERS` for the service: this server. */
    servers: [`127.0.0.1:${port}`],
    set(name: string, value: Records) {
      records.set(name.toLowerCase(), { ...records.get(name.toLowerCase()), ...value });
    },
    close: () => server.close(),
  };
}
