// The two image sniffers, loaded by lib/games/images.ts on the first request that carries an image rather than
// at every cold start of createGame/updateGame: their module init (file-type with its zip and tokenizer
// dependencies, image-size's format table) cost those functions ~4 ms of CPU per cold start, and most requests
// (JSON registrations without images, updates of text fields) never need them (bench/cold-start.ts).
export { fileTypeFromBuffer } from 'file-type';
export { imageSize } from 'image-size';
