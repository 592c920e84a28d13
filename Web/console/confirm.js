// A question before an action that cannot be undone (deleting an endpoint, replacing its secret): a
// modal <dialog>, so the keyboard stays in it, Escape cancels, and the focus returns where it was.
import { el } from '/console/dom.js';

/** Resolves true when `action` (the confirming button's label) is chosen, false otherwise. */
export function confirmAction({ title, text, action, hook }) {
  const dialog = el('dialog', { class: 'card', 'data-sb': hook, 'aria-labelledby': 'confirm-title', 'aria-describedby': 'confirm-text' });
  const form = el('form', { method: 'dialog' });
  const cancel = el('button', { value: 'cancel', class: 'secondary', 'data-sb': `${hook}-cancel` }, 'Cancel');
  const confirm = el('button', { value: 'confirm', class: 'danger', 'data-sb': `${hook}-confirm` }, action);
  const buttons = el('div', { class: 'dialog-buttons' });
  buttons.append(cancel, confirm);
  form.append(el('h2', { id: 'confirm-title' }, title), el('p', { id: 'confirm-text' }, text), buttons);
  dialog.append(form);
  document.body.append(dialog);
  const before = document.activeElement;
  return new Promise((resolve) => {
    dialog.addEventListener('close', () => {
      dialog.remove();
      before?.focus?.();
      resolve(dialog.returnValue === 'confirm');
    }, { once: true });
    dialog.showModal();
    cancel.focus(); // the safe choice is the one Enter takes
  });
}
