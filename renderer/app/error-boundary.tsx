import { Component, type ErrorInfo, type ReactNode } from 'react';

interface Props {
  /** Where this boundary sits, for the message ("the node detail"). */
  area: string;
  children: ReactNode;
  /** Changing this value clears a caught error (e.g. the route), so navigating away recovers. */
  resetKey?: unknown;
}

interface State {
  error: Error | null;
  resetKey: unknown;
}

/** No blank screens: a render error shows what broke and a way back, and the rest of the app keeps working. */
export class ErrorBoundary extends Component<Props, State> {
  override state: State = { error: null, resetKey: this.props.resetKey };

  static getDerivedStateFromError(error: unknown): Partial<State> {
    return { error: error instanceof Error ? error : new Error(String(error)) };
  }

  static getDerivedStateFromProps(props: Props, state: State): Partial<State> | null {
    if (props.resetKey !== state.resetKey) return { error: null, resetKey: props.resetKey };
    return null;
  }

  override componentDidCatch(error: Error, info: ErrorInfo): void {
    // The renderer has no log file; the console is where Electron and the browser keep it.
    console.error(`Windeck: ${this.props.area} failed to render`, error, info.componentStack);
  }

  override render() {
    const { error } = this.state;
    if (!error) return this.props.children;
    return (
      <section className="panel error-panel" role="alert" aria-labelledby="boundary-title">
        <h2 id="boundary-title">Part of the window failed to draw</h2>
        <p>
          {this.props.area} hit an unexpected error: <code>{error.message}</code>
        </p>
        <p>Your data is safe in the local store. Try again, or go back to the fleet view.</p>
        <div className="button-row">
          <button type="button" onClick={() => this.setState({ error: null })}>
            Try again
          </button>
          <a className="button secondary" href="#/">
            Back to fleet
          </a>
        </div>
      </section>
    );
  }
}
