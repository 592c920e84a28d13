// What tells an operator that something needs them while they look elsewhere: the unread total in the tab's
// title, a short sound, and (when the tab is hidden and the operator allowed it) a desktop notification, for a
// new visitor message or a conversation newly assigned to them. Sound and notifications each have a switch
// ([data-sb=notify-sound], [data-sb=notify-desktop]), kept in this browser.
const KEY = 'switchboard-console:alerts';
const BASE_TITLE = document.title;

export class Alerts {
  constructor(client) {
    this.client = client;
    this.settings = { sound: true, desktop: false, ...JSON.parse(localStorage.getItem(KEY) || '{}') };
    this.audio = null;
  }

  start() {
    const sound = document.querySelector('[data-sb=notify-sound]');
    const desktop = document.querySelector('[data-sb=notify-desktop]');
    sound.checked = this.settings.sound;
    desktop.checked = this.settings.desktop && globalThis.Notification?.permission === 'granted';
    desktop.disabled = !globalThis.Notification;
    sound.addEventListener('change', () => this.save({ sound: sound.checked }));
    desktop.addEventListener('change', async () => {
      // The browser asks once, on this click; a refusal leaves the switch off.
      if (desktop.checked && Notification.permission !== 'granted') desktop.checked = (await Notification.requestPermission()) === 'granted';
      this.save({ desktop: desktop.checked });
    });
  }

  save(change) {
    Object.assign(this.settings, change);
    localStorage.setItem(KEY, JSON.stringify(this.settings));
  }

  /** The tab's title with the unread total first, so it shows on a background tab. */
  showTotal(total) {
    document.title = total > 0 ? `(${total}) ${BASE_TITLE}` : BASE_TITLE;
  }

  /** A live change of a session: news for this operator? `open`: whether it is the conversation on screen. */
  changed(before, after, { open }) {
    const me = this.client.user?.id;
    const message = after.last_message;
    const newMessage = message && message.sender_role === 'visitor' && message.seq > (before.last_message?.seq ?? 0);
    const assigned = after.assigned_operator?.id === me && before.assigned_operator?.id !== me;
    if (after.deleted || !(newMessage || assigned)) return;
    // The conversation on screen of a visible tab tells its own news.
    if (open && document.visibilityState === 'visible' && !assigned) return;
    this.ring();
    if (document.visibilityState === 'hidden') {
      this.notify(assigned ? `Assigned to you: ${after.title}` : after.title, newMessage ? message.body || 'Sent a file' : '', after.id);
    }
  }

  /** Two short tones, made here: no file to load, nothing to decode. */
  ring() {
    if (!this.settings.sound) return;
    try {
      this.audio ??= new AudioContext();
      const now = this.audio.currentTime;
      for (const [at, pitch] of [[0, 880], [0.12, 1320]]) {
        const tone = this.audio.createOscillator();
        const gain = this.audio.createGain();
        tone.frequency.value = pitch;
        gain.gain.setValueAtTime(0.08, now + at);
        gain.gain.exponentialRampToValueAtTime(0.0001, now + at + 0.1);
        tone.connect(gain).connect(this.audio.destination);
        tone.start(now + at);
        tone.stop(now + at + 0.1);
      }
      this.rang = (this.rang ?? 0) + 1; // for tests: how many times it rang
    } catch {
      // A browser that refuses audio before a click: the title still counts.
    }
  }

  notify(title, body, sessionId) {
    if (!this.settings.desktop || globalThis.Notification?.permission !== 'granted') return;
    const notification = new Notification(title, { body: body.slice(0, 200), tag: `switchboard-${sessionId}` });
    notification.onclick = () => {
      window.focus();
      location.hash = `#/s/${sessionId}`;
      notification.close();
    };
  }
}
