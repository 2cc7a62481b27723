import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { createDefaultClient } from './api/client';
import { App } from './app/app';
import './styles/app.css';

const container = document.getElementById('root');
if (!container) throw new Error('index.html has no #root element');
const client = createDefaultClient(window);
createRoot(container).render(
  <StrictMode>
    <App client={client} />
  </StrictMode>,
);
