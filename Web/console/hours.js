// The workspace's business hours, for admins (GET/PUT /api/v1/business-hours): a time zone, the
// hours of each weekday and the dates off. Outside them the widget says when the team is back and
// offers its email form; conversations still queue and go to the first operator online.
import { el } from '/console/dom.js';

const DAYS = [['mon', 'Monday'], ['tue', 'Tuesday'], ['wed', 'Wednesday'], ['thu', 'Thursday'], ['fri', 'Friday'],
  ['sat', 'Saturday'], ['sun', 'Sunday']];
const INTERVAL = /^([01]\d|2[0-3]):[0-5]\d\s*[-–]\s*(([01]\d|2[0-3]):[0-5]\d|24:00)$/;
const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** "09:00-12:30, 13:30-17:30" as [["09:00","12:30"],["13:30","17:30"]]; throws on anything else. */
export function parseIntervals(text, day) {
  return text.split(',').map((part) => part.trim()).filter(Boolean).map((part) => {
    if (!INTERVAL.test(part)) throw new Error(`${day}: “${part}” is not like 09:00-17:30`);
    const [from, to] = part.split(/\s*[-–]\s*/);
    if (to !== '24:00' && to <= from) throw new Error(`${day}: ${part} ends before it starts`);
    return [from, to];
  });
}

export class BusinessHours {
  constructor(client, flash) {
    this.client = client;
    this.flash = flash;
  }

  async show(panel) {
    panel.hidden = false;
    let hours;
    try {
      hours = await this.client.api('/api/v1/business-hours');
    } catch (error) {
      return this.flash(`Could not load the business hours: ${error.message}.`);
    }
    this.render(panel, hours);
  }

  render(panel, hours) {
    const form = el('form', { 'data-sb': 'business-hours', class: 'hours' });
    // Whether the widget says the team is away right now, and until when.
    const now = hours.time_zone == null ? 'No business hours: always open.'
      : hours.open ? 'Open now.'
        : `Closed now${hours.opens_at ? `, opening ${new Date(hours.opens_at).toLocaleString([], { weekday: 'long', hour: 'numeric', minute: '2-digit' })} (your time)` : ''}.`;
    form.append(el('p', { 'data-sb': 'hours-now', class: 'muted' }, now));
    const zone = el('input', { name: 'time_zone', 'data-sb': 'time-zone', list: 'time-zones', required: '', autocomplete: 'off' });
    // None stored yet: the browser's own zone is the likeliest.
    zone.value = hours.time_zone ?? Intl.DateTimeFormat().resolvedOptions().timeZone;
    const zones = el('datalist', { id: 'time-zones' });
    for (const name of Intl.supportedValuesOf?.('timeZone') ?? []) zones.append(el('option', { value: name }));
    form.append(this.field('Time zone', zone), zones);
    for (const [key, label] of DAYS) {
      // Empty is closed once a schedule exists; before one, the field shows what to write.
      const placeholder = hours.time_zone == null ? 'e.g. 09:00-17:30' : 'closed';
      const input = el('input', { name: key, 'data-day': key, placeholder, autocomplete: 'off' });
      input.value = (hours.weekly?.[key] ?? []).map(([from, to]) => `${from}-${to}`).join(', ');
      form.append(this.field(label, input));
    }
    const closed = el('input', { name: 'closed_dates', 'data-sb': 'closed-dates', placeholder: '2026-12-25, 2026-12-26', autocomplete: 'off' });
    closed.value = (hours.closed_dates ?? []).join(', ');
    form.append(this.field('Dates off', closed));
    const error = el('p', { class: 'error', role: 'alert' });
    form.append(el('button', { type: 'submit', 'data-sb': 'save-hours' }, 'Save business hours'), error);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      this.save(form, error);
    });
    panel.querySelector('form')?.remove();
    panel.append(form);
  }

  field(label, input) {
    const row = el('label', { class: 'hours-row' });
    row.append(el('span', {}, label), input);
    return row;
  }

  async save(form, error) {
    error.textContent = '';
    let body;
    try {
      const weekly = {};
      for (const [key, label] of DAYS) {
        const intervals = parseIntervals(form.elements[key].value, label);
        if (intervals.length) weekly[key] = intervals;
      }
      const dates = form.elements.closed_dates.value.split(',').map((d) => d.trim()).filter(Boolean);
      const wrong = dates.find((d) => !DATE.test(d));
      if (wrong) throw new Error(`“${wrong}” is not a date like 2026-12-25`);
      body = { time_zone: form.elements.time_zone.value.trim(), weekly, closed_dates: dates };
    } catch (problem) {
      error.textContent = problem.message;
      return;
    }
    try {
      const saved = await this.client.api('/api/v1/business-hours', { method: 'PUT', body });
      this.flash('Business hours saved.', { tone: 'info' });
      if (saved) this.render(form.parentElement, saved);
    } catch (problem) {
      error.textContent = `Not saved: ${problem.message}`;
    }
  }
}
