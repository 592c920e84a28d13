// The demo's token provider: a development token (POST /dev/token, on with
// auth.dev_tokens) for one visitor per browser, so a reload keeps the same
// visitor and so the same conversation. A real site mints tokens server-side
// (docs/clients.md) and points data-token-url at that endpoint.
window.SwitchboardWidget = {
  async getToken() {
    let visitor = localStorage.getItem('switchboard-demo:visitor');
    if (!visitor) {
      visitor = `visitor-${crypto.getRandomValues(new Uint32Array(2)).join('')}`;
      localStorage.setItem('switchboard-demo:visitor', visitor);
    }
    const response = await fetch('/dev/token', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      // attrs: what the shop vouches for, shown to operators as verified (docs/clients.md, "The visitor panel").
      body: JSON.stringify({ role: 'visitor', sub: visitor, name: 'Demo visitor', attrs: { plan: 'Trail club' } }),
    });
    if (!response.ok) throw new Error('POST /dev/token failed: is auth.dev_tokens on? (scripts/serve turns it on)');
    return (await response.json()).token;
  },
};
