// @arcadia/sdk/browser: the play client alone, bundled into one self-contained module for a game page
// (`<script type="module">import { PlayClient } from './arcadia-play.js'`).
export {
  CONNECT_STORAGE_KEY,
  type Connection,
  type ConnectOptions,
  type ConnectScope,
  DEFAULT_CONNECT_SCOPES,
} from './connect.js';
export { ArcadiaError } from './errors.js';
export * from './play.js';
