// @vitest-environment happy-dom
import { cleanup, fireEvent, render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import { ConfirmByTyping } from '../../../../renderer/components/confirm-by-typing';

afterEach(cleanup);

describe('ConfirmByTyping', () => {
  it('enables the action only for the exact name and runs it once on submit', () => {
    const calls: number[] = [];
    render(<ConfirmByTyping expected="win-2" what="node name" actionLabel="Restart kube-proxy on win-2" onConfirm={() => calls.push(1)} />);
    const input = screen.getByLabelText(/Type the node name/);
    const button = screen.getByRole('button', { name: 'Restart kube-proxy on win-2' }) as HTMLButtonElement;
    expect(button.disabled).toBe(true);
    fireEvent.change(input, { target: { value: 'WIN-2' } });
    expect(button.disabled).toBe(true);
    expect(screen.getByText('That is not the node name.')).toBeTruthy();
    fireEvent.change(input, { target: { value: 'win-2 ' } });
    expect(button.disabled).toBe(true);
    fireEvent.change(input, { target: { value: 'win-2' } });
    expect(button.disabled).toBe(false);
    fireEvent.click(button);
    expect(calls).toEqual([1]);
  });

  it('stays disabled with the reason shown when the action is blocked', () => {
    render(<ConfirmByTyping expected="win-2" what="node name" actionLabel="Go" disabledReason="Restarts need a live session." onConfirm={() => undefined} />);
    fireEvent.change(screen.getByLabelText(/Type the node name/), { target: { value: 'win-2' } });
    expect((screen.getByRole('button', { name: 'Go' }) as HTMLButtonElement).disabled).toBe(true);
    expect(screen.getByText('Restarts need a live session.')).toBeTruthy();
  });
});
