/** Copy buttons: the text goes to the clipboard, and the button says so for a moment. */

function flash(button: HTMLButtonElement, text: string): void {
  const label = button.textContent;
  button.textContent = text;
  setTimeout(() => (button.textContent = label), 1500);
}

export function copyText(button: HTMLButtonElement, text: string): void {
  navigator.clipboard.writeText(text).then(
    () => flash(button, "Copied"),
    () => flash(button, "Select and copy"),
  );
}
