/** Lifecycle notice: the seller consented to a version asking for more. */
export default async function scopesUpdated(notice: { version: number; previousScopes: string[]; scopes: string[] }) {
  console.log(`now running version ${notice.version} with ${notice.scopes.join(', ')}`);
}
