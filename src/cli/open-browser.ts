/** Opens `url` in the person's browser; quietly nothing where none can be opened (the caller prints the address). */
export async function openBrowser(url: string) {
  const opener = process.platform === 'darwin' ? 'open' : process.platform === 'win32' ? 'explorer' : 'xdg-open';
  if (process.platform === 'linux' && !process.env.DISPLAY && !process.env.WAYLAND_DISPLAY) return;
  const { execa } = await import('execa');
  await execa(opener, [url], { detached: true, stdio: 'ignore', reject: false, timeout: 5000 }).catch(() => undefined);
}
