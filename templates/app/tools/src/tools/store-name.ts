/** Tool `store-name`: the admin API as this installation, limited to the consented scopes. */
export default async function storeName() {
  const res = await api<{ name: string; code: string }>('GET', '/v1/store');
  if (!res.ok) throw new Error(`store lookup failed: ${res.error?.code}`);
  return { name: res.data!.name, code: res.data!.code };
}
