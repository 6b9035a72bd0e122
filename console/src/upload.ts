// Image uploads through the API's presigned URL, with progress: XMLHttpRequest reports upload progress, fetch
// does not. Locally the PUT goes through the console server's relay (the local object store sends no CORS
// headers); deployed, straight to the bucket, whose CORS rule allows it.
import { api, consoleConfig, data } from './api.js';

export const uploadImage = async (file: File, onProgress: (percent: number) => void): Promise<string> => {
  const ticket = data(
    await api().POST('/games/images/upload-url', {
      body: { contentType: file.type, contentLength: file.size },
    }),
  );
  const relay = consoleConfig().uploadRelayUrl;
  const target = relay
    ? `${new URL(relay, document.baseURI).href}?to=${encodeURIComponent(ticket.uploadUrl)}`
    : ticket.uploadUrl;
  await new Promise<void>((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open(ticket.method, target);
    // Content-Length is signed too; the browser sets it from the body (scripts may not).
    for (const [name, value] of Object.entries(ticket.headers))
      if (name.toLowerCase() !== 'content-length') xhr.setRequestHeader(name, value);
    xhr.upload.onprogress = (event) => {
      if (event.lengthComputable) onProgress((event.loaded / event.total) * 100);
    };
    xhr.onload = () =>
      xhr.status < 300 ? resolve() : reject(new Error(`The image upload answered HTTP ${xhr.status}`));
    xhr.onerror = () => reject(new Error('The image upload failed (network error)'));
    xhr.send(file);
  });
  onProgress(100);
  return ticket.imageKey;
};
