// @arcadia/sdk/browser: the play client alone, bundled into one self-contained module for a game page
// (`<script type="module">import { PlayClient } from './arcadia-play.js'`).
export { ArcadiaError } from './errors.js';
export * from './play.js';
